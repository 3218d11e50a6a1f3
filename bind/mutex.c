#include "../native/mutex.c"

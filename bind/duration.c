#include "../native/duration.c"

#include "../native/launch.c"

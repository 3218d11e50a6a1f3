#include "../native/ccflags.c"

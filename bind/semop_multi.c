#include "../native/semop_multi.c"

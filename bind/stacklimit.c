#include "../native/stacklimit.c"

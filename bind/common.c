#include "../native/common.c"

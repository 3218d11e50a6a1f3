#include "../native/wis.c"

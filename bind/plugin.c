#include "../native/plugin.c"

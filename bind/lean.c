#include "../native/lean.c"

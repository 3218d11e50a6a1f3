#include "../native/faultme.c"

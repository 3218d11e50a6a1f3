#include "../native/osim.c"

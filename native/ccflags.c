/*
 * ccflags.c - the effective C compilation settings of native/, read from
 * the compiler's own predefined macros when this file is compiled with the
 * same flags as every other native file (bind's #cgo CFLAGS followed by
 * CGO_CFLAGS, so a later -O0 wins). The environment variable says what was
 * asked; this says what the compiler did. Recorded as cc.flags.
 */
#include "contend.h"

/* CT_STR turns a macro's value into a string. */
#define CT_STR2(x) #x
#define CT_STR(x) CT_STR2(x)

const char *ct_cc_flags(void)
{
	return ""
#if !defined(__OPTIMIZE__)
	       "-O0 (not optimised)"
#elif defined(__OPTIMIZE_SIZE__)
	       "-Os"
#else
	       "-O1 or higher"
#endif
#if defined(__NO_INLINE__)
	       ", no inlining"
#endif
#if defined(__FAST_MATH__)
	       ", -ffast-math"
#endif
#if defined(__SANITIZE_ADDRESS__)
	       ", -fsanitize=address"
#endif
#if defined(__SANITIZE_THREAD__)
	       ", -fsanitize=thread"
#endif
#if defined(_FORTIFY_SOURCE)
	       ", _FORTIFY_SOURCE=" CT_STR(_FORTIFY_SOURCE)
#endif
#if defined(__AVX512F__)
	       ", AVX-512"
#elif defined(__AVX2__)
	       ", AVX2"
#endif
	       "; " __VERSION__;
}

/*
 * blas_env.h
 *	  OpenBLAS 0.3.21 (Debian 12) reads its CPU type once, at load time, and
 *	  on some virtual machines takes an AVX-512 Xeon for a "Prescott" (SSE3),
 *	  running sgemm 4-5x slower.  Programs call dac_fix_blas_coretype(argv)
 *	  first: when the core type looks wrong and OPENBLAS_CORETYPE is unset,
 *	  it sets the right one and re-executes the program.
 */
#ifndef DAC_BLAS_ENV_H
#define DAC_BLAS_ENV_H

#include <cblas.h>
#include "dac.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void
dac_fix_blas_coretype(char **argv)
{
	const char *core = openblas_get_corename();
	const char *want = dac_blas_wanted_coretype();	/* the choice the module makes too */
	int			wrong;

	if (getenv("OPENBLAS_CORETYPE") != NULL || core == NULL || want == NULL)
		return;
	/* leave a core type that is right, or better than the generic one */
	if (strcmp(want, "SkylakeX") == 0)
		wrong = strcmp(core, "SkylakeX") != 0 && strcmp(core, "Cooperlake") != 0 &&
			strcmp(core, "SapphireRapids") != 0;
	else
		wrong = strcmp(core, "Prescott") == 0 || strcmp(core, "Core2") == 0 ||
			strcmp(core, "Nehalem") == 0 || strcmp(core, "Sandybridge") == 0;
	if (!wrong)
		return;
	setenv("OPENBLAS_CORETYPE", want, 1);
	execv("/proc/self/exe", argv);
	/* exec failed: carry on with the slower kernels */
}

#endif

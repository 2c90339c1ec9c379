/*
 * optim.c
 *	  Adam, cosine decay, gradient clipping: each one flat loop.
 */
#include "optim.h"

#include <math.h>

dac_adam_config
dac_adam_default(long total_steps)
{
	dac_adam_config c;

	c.lr = 5e-4;
	c.beta1 = 0.9;
	c.beta2 = 0.999;
	c.eps = 1e-8;
	c.clip = 10.0;
	c.total_steps = total_steps;
	return c;
}

double
dac_cosine_lr(double lr, long step, long total)
{
	if (total <= 0)
		return lr;
	return lr * 0.5 * (1.0 + cos(M_PI * (double) step / (double) total));
}

double
dac_clip_grad_norm(dac_real *G, size_t n, double max_norm)
{
	double		ss = 0,
				norm,
				coef;
	size_t		i;

	for (i = 0; i < n; i++)
		ss += (double) G[i] * G[i];
	norm = sqrt(ss);
	if (max_norm > 0)
	{
		coef = max_norm / (norm + 1e-6);
		if (coef < 1.0)
			for (i = 0; i < n; i++)
				G[i] = (dac_real) (G[i] * coef);
	}
	return norm;
}

void
dac_adam_update(dac_real *P, const dac_real *G, dac_real *M, dac_real *V, size_t n,
				long t, double lr, const dac_adam_config *cfg)
{
	double		b1 = cfg->beta1,
				b2 = cfg->beta2;
	double		bc1 = 1.0 - pow(b1, (double) t);
	double		bc2 = 1.0 - pow(b2, (double) t);
	double		step_size = lr / bc1;
	double		sqrt_bc2 = sqrt(bc2);
	size_t		i;

	for (i = 0; i < n; i++)
	{
		double		g = G[i];
		double		m = b1 * M[i] + (1.0 - b1) * g;
		double		v = b2 * V[i] + (1.0 - b2) * g * g;

		M[i] = (dac_real) m;
		V[i] = (dac_real) v;
		P[i] = (dac_real) (P[i] - step_size * m / (sqrt(v) / sqrt_bc2 + cfg->eps));
	}
}

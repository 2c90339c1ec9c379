/*
 * loss.c
 *	  MLF and AF losses, accumulated in double precision.
 */
#include "loss.h"

#include <math.h>
#include <string.h>

double
dac_bce_logits(double l, double t)
{
	return (l > 0 ? l : 0) - l * t + log1p(exp(-fabs(l)));
}

static double
sigmoid(double x)
{
	if (x >= 0)
		return 1.0 / (1.0 + exp(-x));
	else
	{
		double		e = exp(x);

		return e / (1.0 + e);
	}
}

dac_status
dac_mlf_loss(const dac_real *logits, const dac_real *ll, const int *labels, int B, int n,
			 dac_loss_parts *out, dac_real *dlogits, dac_real *dll, int *argmin,
			 dac_error *err)
{
	int			b,
				i,
				j,
				K = 0;
	double	   *cnt,
			   *lsum,
			   *llsum;
	double		tot_loss = 0,
				tot_bce = 0,
				tot_ll = 0;

	for (i = 0; i < B * n; i++)
	{
		if (labels[i] < 0 || labels[i] >= B * n)
			return dac_fail(err, DAC_ERR_INVALID, "label %d is out of range", labels[i]);
		if (labels[i] + 1 > K)
			K = labels[i] + 1;
	}
	cnt = dac_alloc_zero(sizeof(double) * 3 * K);
	if (cnt == NULL)
		return dac_fail(err, DAC_ERR_NOMEM, "out of memory computing the loss");
	lsum = cnt + K;
	llsum = cnt + 2 * K;

	for (b = 0; b < B; b++)
	{
		const dac_real *lg = logits + (size_t) b * n;
		const int  *y = labels + (size_t) b * n;
		double		base = 0,
					best = INFINITY,
					best_bce = 0,
					best_ll = 0;
		int			jb = -1;

		memset(cnt, 0, sizeof(double) * 3 * K);
		for (i = 0; i < n; i++)
		{
			double		l = lg[i];

			/* Σ_i BCE(l_i, t_i) = Σ_i [max(l,0) + log1p(e^-|l|)] − Σ_{t_i=1} l_i */
			base += (l > 0 ? l : 0) + log1p(exp(-fabs(l)));
			cnt[y[i]] += 1;
			lsum[y[i]] += l;
			if (ll)
				llsum[y[i]] += ll[(size_t) b * n + i];
		}
		for (j = 0; j < K; j++)
		{
			double		bce,
						llj,
						loss;

			if (cnt[j] == 0)
				continue;		/* empty cluster: +inf in the reference */
			bce = (base - lsum[j]) / n;
			llj = ll ? llsum[j] / (cnt[j] + 1e-8) : 0;
			loss = bce - llj;
			if (loss < best)
			{
				best = loss;
				best_bce = bce;
				best_ll = llj;
				jb = j;
			}
		}
		if (jb < 0)
		{
			int			any = 0;

			for (j = 0; j < K; j++)
				any |= cnt[j] > 0;
			dac_free(cnt);
			/* clusters with points but no loss below +inf: the network's outputs are not finite */
			if (any)
				return dac_fail(err, DAC_ERR_INVALID,
								"the loss of set %d is not finite: training diverged (lower \"lr\" or \"clip\")", b);
			return dac_fail(err, DAC_ERR_INVALID, "set %d has no points", b);
		}
		if (argmin)
			argmin[b] = jb;
		tot_loss += best;
		tot_bce += best_bce;
		tot_ll += best_ll;
		for (i = 0; i < n; i++)
		{
			double		t = y[i] == jb ? 1.0 : 0.0;

			if (dlogits)
				dlogits[(size_t) b * n + i] = (dac_real) ((sigmoid(lg[i]) - t) / ((double) n * B));
			if (dll)
				dll[(size_t) b * n + i] = (dac_real) (-t / (cnt[jb] + 1e-8) / B);
		}
	}
	dac_free(cnt);
	out->loss = tot_loss / B;
	out->bce = tot_bce / B;
	out->ll = tot_ll / B;
	return DAC_OK;
}

dac_status
dac_af_loss(const dac_real *logits, const dac_real *ll, const int *labels,
			const int *anchors, int B, int n, dac_loss_parts *out, dac_real *dlogits,
			dac_real *dll, dac_error *err)
{
	int			b,
				i;
	double		bce = 0,
				llt = 0;

	for (b = 0; b < B; b++)
	{
		const dac_real *lg = logits + (size_t) b * n;
		const int  *y = labels + (size_t) b * n;
		int			ya;
		double		nt = 0,
					s = 0;

		if (anchors[b] < 0 || anchors[b] >= n)
			return dac_fail(err, DAC_ERR_INVALID, "anchor %d is outside the set of %d points", anchors[b], n);
		ya = y[anchors[b]];
		for (i = 0; i < n; i++)
		{
			double		t = y[i] == ya ? 1.0 : 0.0;

			bce += dac_bce_logits(lg[i], t);
			nt += t;
			if (ll)
				s += t * ll[(size_t) b * n + i];
		}
		if (ll)
			llt += s / (nt + 1e-8);
		for (i = 0; i < n; i++)
		{
			double		t = y[i] == ya ? 1.0 : 0.0;

			if (dlogits)
				dlogits[(size_t) b * n + i] = (dac_real) ((sigmoid(lg[i]) - t) / ((double) n * B));
			if (dll)
				dll[(size_t) b * n + i] = (dac_real) (-t / (nt + 1e-8) / B);
		}
	}
	out->bce = bce / ((double) B * n);
	out->ll = llt / B;
	out->loss = out->bce - out->ll;
	return DAC_OK;
}

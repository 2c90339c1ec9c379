/*
 * conv.c
 *	  Convolution (im2col and one matrix product), transposed convolution
 *	  (one matrix product and a scatter) and batch normalisation, channel-last.
 */
#include "conv.h"
#include "linalg.h"

#include <math.h>
#include <string.h>

/* reals of unfolded columns a chunk of images may use */
#define COL_BUDGET ((size_t) 1 << 22)

int
dac_conv_shape(dac_conv *cv)
{
	if (cv->transposed)
	{
		cv->hout = (cv->hin - 1) * cv->stride - 2 * cv->pad + cv->k + cv->out_pad;
		cv->wout = (cv->win - 1) * cv->stride - 2 * cv->pad + cv->k + cv->out_pad;
	}
	else
	{
		cv->hout = (cv->hin + 2 * cv->pad - cv->k) / cv->stride + 1;
		cv->wout = (cv->win + 2 * cv->pad - cv->k) / cv->stride + 1;
	}
	return cv->hout >= 1 && cv->wout >= 1;
}

/* images per chunk so that a chunk's columns stay within COL_BUDGET */
static int
chunk_images(size_t per_image, int m)
{
	size_t		c = per_image ? COL_BUDGET / per_image : (size_t) m;

	return c < 1 ? 1 : c > (size_t) m ? m : (int) c;
}

/*
 * Conv2d's columns of images x [mc images]: col [mc·hout·wout, cin·k·k],
 * column c·k·k + a·k + e, zero where the kernel leaves the image.
 */
static void
im2col(const dac_conv *cv, const dac_real *x, int mc, dac_real *col)
{
	int			k = cv->k,
				K = cv->cin * k * k,
				img,
				i,
				j,
				a,
				e,
				c;

	for (img = 0; img < mc; img++)
		for (i = 0; i < cv->hout; i++)
			for (j = 0; j < cv->wout; j++)
			{
				dac_real   *row = col + (((size_t) img * cv->hout + i) * cv->wout + j) * K;

				for (a = 0; a < k; a++)
				{
					int			y = cv->stride * i - cv->pad + a;

					for (e = 0; e < k; e++)
					{
						int			xx = cv->stride * j - cv->pad + e;
						const dac_real *px = x + (((size_t) img * cv->hin + y) * cv->win + xx) * cv->cin;
						int			in = y >= 0 && y < cv->hin && xx >= 0 && xx < cv->win;

						for (c = 0; c < cv->cin; c++)
							row[c * k * k + a * k + e] = in ? px[c] : 0;
					}
				}
			}
}

/* dx += the columns dcol folded back onto the pixels they came from */
static void
col2im_add(const dac_conv *cv, const dac_real *dcol, int mc, dac_real *dx)
{
	int			k = cv->k,
				K = cv->cin * k * k,
				img,
				i,
				j,
				a,
				e,
				c;

	for (img = 0; img < mc; img++)
		for (i = 0; i < cv->hout; i++)
			for (j = 0; j < cv->wout; j++)
			{
				const dac_real *row = dcol + (((size_t) img * cv->hout + i) * cv->wout + j) * K;

				for (a = 0; a < k; a++)
				{
					int			y = cv->stride * i - cv->pad + a;

					if (y < 0 || y >= cv->hin)
						continue;
					for (e = 0; e < k; e++)
					{
						int			xx = cv->stride * j - cv->pad + e;
						dac_real   *px = dx + (((size_t) img * cv->hin + y) * cv->win + xx) * cv->cin;

						if (xx < 0 || xx >= cv->win)
							continue;
						for (c = 0; c < cv->cin; c++)
							px[c] += row[c * k * k + a * k + e];
					}
				}
			}
}

/*
 * The transposed convolution's scatter: cols [mc·hin·win, cout·k·k] (column
 * o·k·k + a·k + e) added to y [mc·hout·wout, cout]; with gather set, the
 * reverse: cols = the gradients dy at the positions each entry went to.
 */
static void
scatter(const dac_conv *cv, dac_real *cols, int mc, dac_real *y, int gather)
{
	int			k = cv->k,
				K = cv->cout * k * k,
				img,
				h,
				w,
				a,
				e,
				o;

	for (img = 0; img < mc; img++)
		for (h = 0; h < cv->hin; h++)
			for (w = 0; w < cv->win; w++)
			{
				dac_real   *row = cols + (((size_t) img * cv->hin + h) * cv->win + w) * K;

				for (a = 0; a < k; a++)
				{
					int			oy = cv->stride * h - cv->pad + a;

					for (e = 0; e < k; e++)
					{
						int			ox = cv->stride * w - cv->pad + e;
						dac_real   *py;

						if (oy < 0 || oy >= cv->hout || ox < 0 || ox >= cv->wout)
						{
							if (gather)
								for (o = 0; o < cv->cout; o++)
									row[o * k * k + a * k + e] = 0;
							continue;
						}
						py = y + (((size_t) img * cv->hout + oy) * cv->wout + ox) * cv->cout;
						if (gather)
							for (o = 0; o < cv->cout; o++)
								row[o * k * k + a * k + e] = py[o];
						else
							for (o = 0; o < cv->cout; o++)
								py[o] += row[o * k * k + a * k + e];
					}
				}
			}
}

dac_status
dac_conv_forward(const dac_conv *cv, const dac_real *P, const dac_real *x, int m, dac_real *y,
				 dac_arena *ar)
{
	size_t		pin = (size_t) cv->hin * cv->win,
				pout = (size_t) cv->hout * cv->wout,
				kk = (size_t) cv->k * cv->k,
				per = cv->transposed ? pin * cv->cout * kk : pout * cv->cin * kk,
				r;
	int			mc = chunk_images(per, m),
				i0;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *col = dac_arena_reals_raw(ar, per * mc);

	if (col == NULL)
		return DAC_ERR_NOMEM;
	for (r = 0; r < (size_t) m * pout; r++)
		memcpy(y + r * cv->cout, P + cv->b, sizeof(dac_real) * cv->cout);
	for (i0 = 0; i0 < m; i0 += mc)
	{
		int			n = m - i0 < mc ? m - i0 : mc;
		const dac_real *xc = x + (size_t) i0 * pin * cv->cin;
		dac_real   *yc = y + (size_t) i0 * pout * cv->cout;

		if (dac_interrupted())
		{
			dac_arena_reset_to(ar, mark);
			return DAC_ERR_INTERRUPTED;
		}
		if (cv->transposed)
		{
			int			K = (int) (cv->cout * kk);

			dac_gemm(0, 0, (int) (n * pin), K, cv->cin, 1, xc, cv->cin, P + cv->w, K, 0, col, K);
			scatter(cv, col, n, yc, 0);
		}
		else
		{
			int			K = (int) (cv->cin * kk);

			im2col(cv, xc, n, col);
			dac_gemm(0, 1, (int) (n * pout), cv->cout, K, 1, col, K, P + cv->w, K, 1, yc, cv->cout);
		}
	}
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

dac_status
dac_conv_backward(const dac_conv *cv, const dac_real *P, dac_real *G, const dac_real *x,
				  const dac_real *dy, int m, dac_real *dx, dac_arena *ar)
{
	size_t		pin = (size_t) cv->hin * cv->win,
				pout = (size_t) cv->hout * cv->wout,
				kk = (size_t) cv->k * cv->k,
				per = cv->transposed ? pin * cv->cout * kk : pout * cv->cin * kk,
				r;
	int			mc = chunk_images(per, m),
				i0,
				o;
	dac_arena_mark mark = dac_arena_get_mark(ar);
	dac_real   *col = dac_arena_reals_raw(ar, per * mc),
			   *dcol = dac_arena_reals_raw(ar, per * mc);
	double	   *db = dac_arena_alloc(ar, sizeof(double) * cv->cout);

	if (col == NULL || dcol == NULL || db == NULL)
	{
		dac_arena_reset_to(ar, mark);
		return DAC_ERR_NOMEM;
	}
	memset(db, 0, sizeof(double) * cv->cout);
	for (r = 0; r < (size_t) m * pout; r++)
		for (o = 0; o < cv->cout; o++)
			db[o] += dy[r * cv->cout + o];
	for (o = 0; o < cv->cout; o++)
		G[cv->b + o] += (dac_real) db[o];
	for (i0 = 0; i0 < m; i0 += mc)
	{
		int			n = m - i0 < mc ? m - i0 : mc;
		const dac_real *xc = x + (size_t) i0 * pin * cv->cin;
		const dac_real *dyc = dy + (size_t) i0 * pout * cv->cout;

		if (dac_interrupted())
		{
			dac_arena_reset_to(ar, mark);
			return DAC_ERR_INTERRUPTED;
		}
		if (cv->transposed)
		{
			int			K = (int) (cv->cout * kk);

			scatter(cv, dcol, n, (dac_real *) dyc, 1);
			dac_gemm(1, 0, cv->cin, K, (int) (n * pin), 1, xc, cv->cin, dcol, K, 1, G + cv->w, K);
			if (dx)
				dac_gemm(0, 1, (int) (n * pin), cv->cin, K, 1, dcol, K, P + cv->w, K, 1,
						 dx + (size_t) i0 * pin * cv->cin, cv->cin);
		}
		else
		{
			int			K = (int) (cv->cin * kk);

			im2col(cv, xc, n, col);
			dac_gemm(1, 0, cv->cout, K, (int) (n * pout), 1, dyc, cv->cout, col, K, 1, G + cv->w, K);
			if (dx)
			{
				dac_gemm(0, 0, (int) (n * pout), K, cv->cout, 1, dyc, cv->cout, P + cv->w, K, 0, dcol, K);
				col2im_add(cv, dcol, n, dx + (size_t) i0 * pin * cv->cin);
			}
		}
	}
	dac_arena_reset_to(ar, mark);
	return DAC_OK;
}

/* ---------------------------------------------------------------- batch norm */

void
dac_bn_forward_batch(const dac_bn *bn, const dac_real *P, const dac_real *x, size_t rows,
					 dac_real *y, double *mean, double *var)
{
	int			C = bn->C,
				c;
	size_t		r;

	for (c = 0; c < C; c++)
		mean[c] = var[c] = 0;
	for (r = 0; r < rows; r++)
		for (c = 0; c < C; c++)
			mean[c] += x[r * C + c];
	for (c = 0; c < C; c++)
		mean[c] /= (double) rows;
	for (r = 0; r < rows; r++)
		for (c = 0; c < C; c++)
		{
			double		t = x[r * C + c] - mean[c];

			var[c] += t * t;
		}
	for (c = 0; c < C; c++)
		var[c] /= (double) rows;
	for (r = 0; r < rows; r++)
		for (c = 0; c < C; c++)
			y[r * C + c] = (dac_real) ((x[r * C + c] - mean[c]) / sqrt(var[c] + DAC_BN_EPS) *
									   P[bn->gamma + c] + P[bn->beta + c]);
}

void
dac_bn_forward_running(const dac_bn *bn, const dac_real *P, const dac_real *x, size_t rows,
					   dac_real *y)
{
	int			C = bn->C,
				c;
	size_t		r;

	for (r = 0; r < rows; r++)
		for (c = 0; c < C; c++)
			y[r * C + c] = (dac_real) ((x[r * C + c] - (double) P[bn->mean + c]) /
									   sqrt((double) P[bn->var + c] + DAC_BN_EPS) *
									   P[bn->gamma + c] + P[bn->beta + c]);
}

void
dac_bn_backward(const dac_bn *bn, const dac_real *P, dac_real *G, const dac_real *x,
				const double *mean, const double *var, const dac_real *dy, size_t rows,
				dac_real *dx)
{
	int			C = bn->C,
				c;
	size_t		r;
	double		sdy[1024],
				sdyx[1024];
	double		N = (double) rows;

	for (c = 0; c < C; c++)
		sdy[c] = sdyx[c] = 0;
	for (r = 0; r < rows; r++)
		for (c = 0; c < C; c++)
		{
			double		xh = (x[r * C + c] - mean[c]) / sqrt(var[c] + DAC_BN_EPS);

			sdy[c] += dy[r * C + c];
			sdyx[c] += dy[r * C + c] * xh;
		}
	for (c = 0; c < C; c++)
	{
		G[bn->gamma + c] += (dac_real) sdyx[c];
		G[bn->beta + c] += (dac_real) sdy[c];
	}
	/* dx = γ/√(v+ε) (dy − mean(dy) − x̂ mean(dy x̂)) */
	for (r = 0; r < rows; r++)
		for (c = 0; c < C; c++)
		{
			double		inv = 1.0 / sqrt(var[c] + DAC_BN_EPS);
			double		xh = (x[r * C + c] - mean[c]) * inv;

			dx[r * C + c] = (dac_real) (P[bn->gamma + c] * inv *
										(dy[r * C + c] - sdy[c] / N - xh * sdyx[c] / N));
		}
}

void
dac_bn_update_running(const dac_bn *bn, dac_real *P, const double *mean, const double *var,
					  size_t rows)
{
	double		unbias = rows > 1 ? (double) rows / (double) (rows - 1) : 1.0;
	int			c;

	for (c = 0; c < bn->C; c++)
	{
		P[bn->mean + c] = (dac_real) ((1 - DAC_BN_MOMENTUM) * P[bn->mean + c] + DAC_BN_MOMENTUM * mean[c]);
		P[bn->var + c] = (dac_real) ((1 - DAC_BN_MOMENTUM) * P[bn->var + c] +
									 DAC_BN_MOMENTUM * var[c] * unbias);
	}
}

double
dac_conv_flops(const dac_conv *cv, int m)
{
	return 2.0 * m * (double) cv->cin * cv->cout * cv->k * cv->k *
		(cv->transposed ? (double) cv->hin * cv->win : (double) cv->hout * cv->wout);
}

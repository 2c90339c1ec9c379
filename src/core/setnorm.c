/*
 * setnorm.c
 *	  Set normalisation (see setnorm.h): centre, project on the set's leading
 *	  principal directions, fix their signs, scale to unit RMS length.
 */
#include "setnorm.h"

#include <math.h>
#include <string.h>

#include "linalg.h"
#include "rng.h"

/* The block method's starting directions: the same for every set. */
#define SETNORM_SEED UINT64_C(0x5e7a0b1c2d3e4f51)

/*
 * The plane rotation (c, s) of two lines of a p x p matrix: elements
 * M[a + k·stride] and M[b + k·stride], k = 0 .. p-1 (stride p: two columns;
 * stride 1 with a, b row starts: two rows).
 */
static void
rotate(double *M, int p, int stride, int a, int b, double c, double s)
{
	int			k;

	for (k = 0; k < p; k++)
	{
		double		x = M[a + k * stride],
					y = M[b + k * stride];

		M[a + k * stride] = c * x - s * y;
		M[b + k * stride] = s * x + c * y;
	}
}

int
dac_sym_eigen(double *A, int p, double *ev, double *V)
{
	int			i,
				j,
				k,
				sweep;

	for (i = 0; i < p; i++)
		for (j = 0; j < p; j++)
			V[i * p + j] = i == j;
	for (sweep = 0; sweep < 100; sweep++)
	{
		double		off = 0,
					tot = 0;

		for (i = 0; i < p; i++)
			for (j = 0; j < p; j++)
			{
				tot += A[i * p + j] * A[i * p + j];
				if (i != j)
					off += A[i * p + j] * A[i * p + j];
			}
		if (off <= 1e-26 * tot || off == 0)
			break;
		for (i = 0; i < p - 1; i++)
		{
			/* a row of rotations costs O(p²): the host may stop us between rows */
			if (dac_interrupted())
				return 1;
			for (j = i + 1; j < p; j++)
			{
				double		aij = A[i * p + j],
							theta,
							t,
							c,
							s;

				if (fabs(aij) <= 1e-300)
					continue;
				/* the rotation that zeroes A[i][j] (Golub & Van Loan 8.5.2) */
				theta = (A[j * p + j] - A[i * p + i]) / (2 * aij);
				t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
				c = 1 / sqrt(t * t + 1);
				s = t * c;
				/* A ← Jᵀ A J, V ← V J: columns, then rows, i and j turned */
				rotate(A, p, p, i, j, c, s);
				rotate(A, p, 1, i * p, j * p, c, s);
				rotate(V, p, p, i, j, c, s);
			}
		}
	}
	for (i = 0; i < p; i++)
		ev[i] = A[i * p + i];
	/* decreasing order, ties in index order (selection sort: p is small) */
	for (i = 0; i < p; i++)
	{
		int			best = i;

		for (j = i + 1; j < p; j++)
			if (ev[j] > ev[best])
				best = j;
		if (best != i)
		{
			double		tmp = ev[i];

			ev[i] = ev[best];
			ev[best] = tmp;
			for (k = 0; k < p; k++)
			{
				tmp = V[k * p + i];
				V[k * p + i] = V[k * p + best];
				V[k * p + best] = tmp;
			}
		}
	}
	return 0;
}

/* a · b over n, in four running sums (not one: a chain of additions waits on each other) */
static double
dot4(const double *a, const double *b, int n)
{
	double		s0 = 0,
				s1 = 0,
				s2 = 0,
				s3 = 0;
	int			i;

	for (i = 0; i + 4 <= n; i += 4)
	{
		s0 += a[i] * b[i];
		s1 += a[i + 1] * b[i + 1];
		s2 += a[i + 2] * b[i + 2];
		s3 += a[i + 3] * b[i + 3];
	}
	for (; i < n; i++)
		s0 += a[i] * b[i];
	return (s0 + s1) + (s2 + s3);
}

/*
 * Modified Gram-Schmidt on the p columns of a d x p block, held transposed
 * (Qt [p, d]: column j is row j, contiguous) so that every dot product and
 * update runs along memory; each column in turn loses its parts along the
 * earlier ones and is scaled to unit length, or zeroed when nothing of it
 * is left (below 1e-12 of the first column's norm).
 */
static void
orthonormalise(double *Qt, int d, int p)
{
	int			i,
				j,
				k;
	double		first = 0;

	for (j = 0; j < p; j++)
	{
		double	   *qj = Qt + (size_t) j * d;
		double		nrm;

		for (k = 0; k < j; k++)
		{
			const double *qk = Qt + (size_t) k * d;
			double		dot;

			dot = dot4(qj, qk, d);
			for (i = 0; i < d; i++)
				qj[i] -= dot * qk[i];
		}
		nrm = sqrt(dot4(qj, qj, d));
		if (j == 0)
			first = nrm;
		if (!(nrm > 1e-12 * first) || nrm == 0)
			nrm = INFINITY;		/* zeroes the column */
		for (i = 0; i < d; i++)
			qj[i] /= nrm;
	}
}

static int
block_width(int d, int w)
{
	return d <= w + DAC_SETNORM_OVERSAMPLE ? d : w + DAC_SETNORM_OVERSAMPLE;
}

double
dac_setnorm_bytes(int n, int d, int w)
{
	double		p = block_width(d, w);

	/* mean; Xc; Q, T (and Q's double copy); Y; B, its eigenvectors, ev */
	return sizeof(double) * (double) d + sizeof(dac_real) * (double) n * d +
		(2.0 * sizeof(dac_real) + sizeof(double)) * d * p + sizeof(dac_real) * (double) n * p +
		sizeof(double) * (2 * p * p + p) + 64;
}

double
dac_setnorm_flops(int n, int d, int w)
{
	double		p = block_width(d, w);

	if (p == d || n <= p)
		return 0;				/* no products through dac_gemm */
	return (double) DAC_SETNORM_POWER_ITERS * 4.0 * n * d * p + 2.0 * n * d * p;
}

/*
 * A small group's exact principal components (n <= the block's width: the
 * centred rows Xc [n, d] span at most n − 1 dimensions): from the n x n Gram
 * matrix G = Xc Xcᵀ = U Λ Uᵀ, the coordinate of row i on component j is
 * U[i, j] √λ_j, into the first r of Z's w columns.  The same Z as the block
 * method, to rounding, at a fraction of its cost (no power iteration over
 * d x p).  S: scratch of 2n² + n doubles.  1 when interrupted.
 */
static int
gram_components(const dac_real *Xc, int n, int d, int r, int w, double *S, dac_real *Z)
{
	double	   *G = S,
			   *U = S + (size_t) n * n,
			   *evn = U + (size_t) n * n;
	int			i,
				j,
				k;

	for (i = 0; i < n; i++)
	{
		if (dac_interrupted())
			return 1;
		for (j = i; j < n; j++)
		{
			double		s = 0;

			for (k = 0; k < d; k++)
				s += (double) Xc[(size_t) i * d + k] * Xc[(size_t) j * d + k];
			G[(size_t) i * n + j] = G[(size_t) j * n + i] = s;
		}
	}
	if (dac_sym_eigen(G, n, evn, U))
		return 1;
	for (j = 0; j < r; j++)
	{
		double		sc = j < n && evn[j] > 0 ? sqrt(evn[j]) : 0;

		/*
		 * beyond the n columns of U there is nothing to read (U[i, j] for j
		 * >= n would be the next row's, or past the matrix: 0 × NaN where
		 * that memory holds one)
		 */
		for (i = 0; i < n; i++)
			Z[(size_t) i * w + j] = sc > 0 ? (dac_real) (U[(size_t) i * n + j] * sc) : 0;
	}
	return 0;
}

/*
 * Z's r components [n, w] each turned to a positive third moment, all
 * scaled to a root mean square row norm of 1, and the columns past r zeroed.
 */
static void
signs_and_scale(dac_real *Z, int n, int r, int w)
{
	double		ss = 0,
				R,
				inv;
	int			i,
				j;

	for (j = 0; j < r; j++)
	{
		double		s3 = 0,
					sign;

		for (i = 0; i < n; i++)
		{
			double		z = Z[(size_t) i * w + j];

			s3 += z * z * z;
		}
		sign = s3 < 0 ? -1.0 : 1.0;
		for (i = 0; i < n; i++)
		{
			double		z = sign * Z[(size_t) i * w + j];

			Z[(size_t) i * w + j] = (dac_real) z;
			ss += z * z;
		}
	}
	R = sqrt(ss / n);
	inv = R > 0 && isfinite(R) ? 1.0 / R : 1.0;
	for (i = 0; i < n; i++)
	{
		for (j = 0; j < r; j++)
			Z[(size_t) i * w + j] = (dac_real) (Z[(size_t) i * w + j] * inv);
		for (j = r; j < w; j++)
			Z[(size_t) i * w + j] = 0;
	}
}

dac_status
dac_setnorm(const dac_real *X, int n, int d, int w, dac_real *Z, dac_error *err)
{
	int			p = block_width(d, w),
				r = w < d ? w : d,
				exact = p == d,
				gram = !exact && n <= p,
				i,
				j,
				k,
				it;
	double	   *mean,
			   *Qd = NULL,
			   *Bm,
			   *Vb,
			   *ev;
	dac_real   *Xc,
			   *Q = NULL,
			   *T = NULL,
			   *Y;
	dac_status	st = DAC_OK;

	if (n < 1 || d < 1 || w < 1)
		return dac_fail(err, DAC_ERR_INVALID, "set normalisation needs a non-empty set and widths");
	mean = dac_alloc_zero(sizeof(double) * (size_t) d);
	Xc = dac_alloc(sizeof(dac_real) * (size_t) n * d);
	Bm = dac_alloc(sizeof(double) * (size_t) (2 * p * p + p));
	Y = exact || gram ? Xc : dac_alloc(sizeof(dac_real) * (size_t) n * p);
	if (!exact && !gram)
	{
		Q = dac_alloc(sizeof(dac_real) * (size_t) d * p);
		T = dac_alloc(sizeof(dac_real) * (size_t) d * p);
		Qd = dac_alloc(sizeof(double) * (size_t) d * p);
	}
	if (mean == NULL || Xc == NULL || Bm == NULL || Y == NULL ||
		(!exact && !gram && (Q == NULL || T == NULL || Qd == NULL)))
	{
		st = dac_fail(err, DAC_ERR_NOMEM, "out of memory normalising a set of %d points", n);
		goto done;
	}
	Vb = Bm + (size_t) p * p;
	ev = Vb + (size_t) p * p;

	/* centre */
	for (i = 0; i < n; i++)
	{
		if ((i & 1023) == 0 && dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
		for (k = 0; k < d; k++)
			mean[k] += X[(size_t) i * d + k];
	}
	for (k = 0; k < d; k++)
		mean[k] /= n;
	for (i = 0; i < n; i++)
		for (k = 0; k < d; k++)
			Xc[(size_t) i * d + k] = (dac_real) (X[(size_t) i * d + k] - mean[k]);

	if (gram)
	{
		if (gram_components(Xc, n, d, r, w, Bm, Z))
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		else
			signs_and_scale(Z, n, r, w);
		goto done;
	}
	if (!exact)
	{
		/* the leading p-dimensional subspace by block power iteration */
		dac_rng		rng;

		dac_rng_seed(&rng, SETNORM_SEED);
		for (i = 0; i < d * p; i++)
			Q[i] = (dac_real) dac_rng_normal(&rng);
		for (it = 0; it < DAC_SETNORM_POWER_ITERS; it++)
		{
			if (dac_interrupted())
			{
				st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
				goto done;
			}
			dac_gemm(0, 0, n, p, d, 1, Xc, d, Q, p, 0, Y, p);
			dac_gemm(1, 0, d, p, n, 1, Xc, d, Y, p, 0, T, p);
			/* T [d, p] to its transpose, orthonormalised, and back as Q [d, p] */
			for (j = 0; j < p; j++)
				for (i = 0; i < d; i++)
					Qd[(size_t) j * d + i] = T[(size_t) i * p + j];
			orthonormalise(Qd, d, p);
			for (j = 0; j < p; j++)
				for (i = 0; i < d; i++)
					Q[(size_t) i * p + j] = (dac_real) Qd[(size_t) j * d + i];
		}
		dac_gemm(0, 0, n, p, d, 1, Xc, d, Q, p, 0, Y, p);
	}

	/* B = Yᵀ Y in double, then its eigenvectors rotate Y */
	for (j = 0; j < p; j++)
	{
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
		for (k = j; k < p; k++)
		{
			double		s = 0;

			for (i = 0; i < n; i++)
				s += (double) Y[(size_t) i * p + j] * Y[(size_t) i * p + k];
			Bm[j * p + k] = Bm[k * p + j] = s;
		}
	}
	if (dac_sym_eigen(Bm, p, ev, Vb))
	{
		st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
		goto done;
	}
	for (j = 0; j < r; j++)
	{
		if (dac_interrupted())
		{
			st = dac_fail(err, DAC_ERR_INTERRUPTED, "interrupted");
			goto done;
		}
		for (i = 0; i < n; i++)
		{
			double		z = 0;

			for (k = 0; k < p; k++)
				z += (double) Y[(size_t) i * p + k] * Vb[k * p + j];
			Z[(size_t) i * w + j] = (dac_real) z;
		}
	}
	signs_and_scale(Z, n, r, w);
done:
	dac_free(mean);
	if (Y != Xc)
		dac_free(Y);
	dac_free(Xc);
	dac_free(Bm);
	dac_free(Q);
	dac_free(T);
	dac_free(Qd);
	return st;
}

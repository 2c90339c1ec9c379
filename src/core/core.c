/*
 * core.c
 *	  Host hooks, errors, overflow-checked sizes and the bump arena.
 */
#include "core.h"

#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dac_hooks current_hooks;

void
dac_set_hooks(const dac_hooks *hooks)
{
	if (hooks)
		current_hooks = *hooks;
	else
		memset(&current_hooks, 0, sizeof(current_hooks));
}

void *
dac_alloc(size_t size)
{
	if (size == 0)
		size = 1;
	if (current_hooks.alloc)
		return current_hooks.alloc(size);
	return malloc(size);
}

void *
dac_alloc_zero(size_t size)
{
	void	   *p = dac_alloc(size);

	if (p)
		memset(p, 0, size ? size : 1);
	return p;
}

void
dac_free(void *ptr)
{
	if (ptr == NULL)
		return;
	if (current_hooks.free)
		current_hooks.free(ptr);
	else if (!current_hooks.alloc)
		free(ptr);
}

int
dac_interrupted(void)
{
	unsigned	csr;
	int			r;

	if (!current_hooks.interrupted)
		return 0;
	/* the host may leave by longjmp: give it its own float mode first */
	csr = dac_fpu_enter();
	dac_fpu_leave(csr & ~DAC_FPU_FLUSH);
	r = current_hooks.interrupted();
	dac_fpu_leave(csr);
	return r;
}

void
dac_progress(const char *stage, int64_t done, int64_t total)
{
	unsigned	csr;

	if (!current_hooks.progress)
		return;
	csr = dac_fpu_enter();
	dac_fpu_leave(csr & ~DAC_FPU_FLUSH);
	current_hooks.progress(stage, done, total);
	dac_fpu_leave(csr);
}

/*
 * Subnormal floats (below 1.2e-38) make x86 arithmetic, OpenBLAS's kernels
 * included, tens of times slower, and a trained network produces them
 * (softmax weights near e^-87, tiny gradients and Adam moments): a training
 * step of the shipped MLF took 1.4 s instead of 0.4 s.  The core computes
 * with flush-to-zero and denormals-are-zero, which changes results by less
 * than 1e-38 absolute, and gives the host its float mode back on return
 * and before every interrupt check.
 */
int			dac_fpu_flush = 1;

unsigned
dac_fpu_enter(void)
{
#if defined(__SSE__) || defined(__x86_64__)
	unsigned	old = _mm_getcsr();

	if (dac_fpu_flush)
		_mm_setcsr(old | DAC_FPU_FLUSH);
	return old;
#else
	return 0;
#endif
}

void
dac_fpu_leave(unsigned saved)
{
#if defined(__SSE__) || defined(__x86_64__)
	_mm_setcsr(saved);
#else
	(void) saved;
#endif
}

dac_status
dac_fail(dac_error *err, dac_status code, const char *fmt,...)
{
	if (err)
	{
		va_list		ap;

		err->code = code;
		err->hint = NULL;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

dac_status
dac_fail_hint(dac_error *err, dac_status code, const char *hint, const char *fmt,...)
{
	if (err)
	{
		va_list		ap;

		err->code = code;
		err->hint = hint;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

const char *
dac_printable(const char *s, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t		w = 0;

	if (size == 0)
		return buf;
	for (; s && *s; s++)
	{
		unsigned char c = (unsigned char) *s;
		size_t		need = (c >= 0x20 && c < 0x7f) ? 1 : 4;

		/* keep room for "..." and the terminator */
		if (w + need + 4 > size)
		{
			if (w + 4 <= size)
			{
				memcpy(buf + w, "...", 3);
				w += 3;
			}
			break;
		}
		if (need == 1)
			buf[w++] = (char) c;
		else
		{
			buf[w++] = '\\';
			buf[w++] = 'x';
			buf[w++] = hex[c >> 4];
			buf[w++] = hex[c & 15];
		}
	}
	buf[w < size ? w : size - 1] = '\0';
	return buf;
}

int
dac_mul_size(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a)
		return 0;
	*out = a * b;
	return 1;
}

int
dac_add_size(size_t a, size_t b, size_t *out)
{
	if (b > SIZE_MAX - a)
		return 0;
	*out = a + b;
	return 1;
}

/* ---------------------------------------------------------------- arena */

struct dac_arena_block
{
	dac_arena_block *next;
	size_t		size;			/* usable bytes in data[] */
	size_t		used;
	/* data follows, 64-byte aligned */
};

#define ARENA_HDR (((sizeof(dac_arena_block) + 63) / 64) * 64)
#define ARENA_ALIGN(x) (((x) + 63) & ~(size_t) 63)

void
dac_arena_init(dac_arena *a, size_t block_size)
{
	a->head = NULL;
	a->block_size = block_size ? block_size : ((size_t) 1 << 20);
	a->total = 0;
	a->peak = 0;
	a->no_grow = 0;
}

/*
 * size bytes aligned to align (8 or 64) within the head block, or a new
 * block.  A block's data starts 64-byte aligned.
 */
static void *
arena_alloc(dac_arena *a, size_t size, size_t align)
{
	dac_arena_block *b = a->head;
	size_t		need,
				at = 0;
	char	   *p;

	if (size > SIZE_MAX - 128)
		return NULL;
	need = (size + align - 1) & ~(align - 1);
	if (need == 0)
		need = align;
	if (b != NULL)
		at = (b->used + align - 1) & ~(align - 1);
	if (b == NULL || at > b->size || b->size - at < need)
	{
		size_t		bsize = need > a->block_size ? need : a->block_size;
		char	   *raw;

		if (bsize > SIZE_MAX - ARENA_HDR - 64)
			return NULL;
		raw = dac_alloc(ARENA_HDR + bsize + 64);
		if (raw == NULL)
			return NULL;
		b = (dac_arena_block *) raw;
		b->size = bsize;
		b->used = 0;
		b->next = a->head;
		a->head = b;
		at = 0;
	}
	/* align the data start of the block to 64 bytes */
	p = (char *) b + ARENA_HDR;
	p += (64 - ((uintptr_t) p & 63)) & 63;
	p += at;
	a->total += need + (at - b->used);
	b->used = at + need;
	if (a->total > a->peak)
		a->peak = a->total;
	return p;
}

void *
dac_arena_alloc(dac_arena *a, size_t size)
{
	return arena_alloc(a, size, 64);
}

/* 8-byte aligned: many small nodes (parsed JSON) without 64-byte padding each. */
void *
dac_arena_alloc_small(dac_arena *a, size_t size)
{
	return arena_alloc(a, size, 8);
}

dac_real *
dac_arena_reals(dac_arena *a, size_t count)
{
	size_t		bytes;
	void	   *p;

	if (!dac_mul_size(count, sizeof(dac_real), &bytes))
		return NULL;
	p = dac_arena_alloc(a, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

dac_real *
dac_arena_reals_raw(dac_arena *a, size_t count)
{
	size_t		bytes;

	if (!dac_mul_size(count, sizeof(dac_real), &bytes))
		return NULL;
	return dac_arena_alloc(a, bytes);
}

dac_arena_mark
dac_arena_get_mark(dac_arena *a)
{
	dac_arena_mark m;

	m.head = a->head;
	m.used = a->head ? a->head->used : 0;
	m.total = a->total;
	return m;
}

void
dac_arena_reset_to(dac_arena *a, dac_arena_mark mark)
{
	/*
	 * Reset to empty keeps one block, grown to the peak use seen so far, so
	 * that a loop of equal passes (training steps) allocates once.
	 */
	if (mark.head == NULL && a->head != NULL)
	{
		if (a->head->next == NULL && a->head->size >= a->peak)
		{
			a->head->used = 0;
			a->total = 0;
			return;
		}
		if (a->peak > a->block_size && !a->no_grow)
			a->block_size = a->peak;
	}
	while (a->head && a->head != mark.head)
	{
		dac_arena_block *next = a->head->next;

		dac_free(a->head);
		a->head = next;
	}
	if (a->head)
		a->head->used = mark.used;
	a->total = mark.total;
}

void
dac_arena_free(dac_arena *a)
{
	while (a->head)
	{
		dac_arena_block *next = a->head->next;

		dac_free(a->head);
		a->head = next;
	}
	a->total = 0;
}

double
dac_logsumexp(const double *v, int n, double cut, double *p)
{
	double		mx = -INFINITY,
				z = 0;
	int			k;

	for (k = 0; k < n; k++)
		mx = fmax(mx, v[k]);
	for (k = 0; k < n; k++)
	{
		double		e = v[k] - mx < cut ? 0 : exp(v[k] - mx);

		z += e;
		if (p)
			p[k] = e;
	}
	if (p)
		for (k = 0; k < n; k++)
			p[k] /= z;
	return mx + log(z);
}

void *
dac_alloc_object(size_t size, dac_error *err)
{
	void	   *p = dac_alloc_zero(size);

	if (p == NULL)
		dac_fail(err, DAC_ERR_NOMEM, "out of memory");
	return p;
}

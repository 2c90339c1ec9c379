/*
 * fuzz_weights.c
 *	  libFuzzer target over everything that reads bytes a role can send: the
 *	  safetensors reader, the model loader (dac_weights_info, dac_import,
 *	  every model lookup), the optimiser-state loader (checkpoints) and the
 *	  kept-clustering reader (dac_assign's jsonb, as text).
 *	  Built by `make fuzz` with clang's -fsanitize=fuzzer,address,undefined
 *	  and run by test/fuzz/run.sh, seeded with the shipped models and the
 *	  reference fixtures.  A crash input it finds becomes a case in
 *	  test/unit/test_hostile.c.
 */
#include "core.h"
#include "mixture.h"
#include "model.h"
#include "safetensors.h"
#include "train.h"

#include <stdint.h>
#include <stddef.h>

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_file		f;
	dac_model	m;
	dac_error	err;

	if (st_open(data, size, &f, &err) == DAC_OK)
	{
		size_t		i;

		/* read every tensor the way the loaders do */
		for (i = 0; i < f.ntensors; i++)
		{
			const st_tensor *t = &f.tensors[i];
			double		v[64];

			if ((t->dtype == ST_F32 || t->dtype == ST_F64) && t->count <= 64)
				(void) st_read_f64(&f, t, v, &err);
		}
		st_close(&f);
	}
	{
		static const char settings[] = "{\"absorb_size\": 2, \"leftover\": \"best\"}";
		uint8_t    *out;
		size_t		out_len;

		/* the same file with settings of its own (dac_weights_with_settings) */
		if (dac_weights_with_settings(data, size, settings, sizeof(settings) - 1, &out, &out_len, &err) == DAC_OK)
			dac_free(out);
	}
	if (dac_model_load(&m, data, size, &err) == DAC_OK)
	{
		dac_trainer t;
		dac_train_opts to = dac_train_opts_default();

		/* the same bytes as this model's optimiser state */
		to.steps = 1;
		to.batch = 1;
		to.n_max = 8;
		if (m.net.nparams < 1000000 && dac_trainer_init(&t, &m, &to, 0, &err) == DAC_OK)
		{
			(void) dac_trainer_load_state(&t, data, size, &err);
			dac_trainer_free(&t);
		}
		dac_model_free(&m);
	}
	{
		dac_mixture mix;

		/* the same bytes as a kept clustering; assign a point and write it back */
		if (dac_mixture_from_json((const char *) data, size, &mix, &err) == DAC_OK)
		{
			dac_strbuf	sb;
			int			id;
			double		prob;

			if (mix.d <= 4096)
			{
				dac_real	x[4096] = {0};

				dac_mixture_assign(&mix, x, 0.001, &id, &prob);
			}
			dac_strbuf_init(&sb);
			dac_mixture_to_json(&mix, &sb);
			dac_strbuf_free(&sb);
			dac_mixture_free(&mix);
		}
	}
	return 0;
}

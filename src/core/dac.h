/*
 * dac.h
 *	  The core's front door: everything a host needs — the PostgreSQL glue
 *	  (src/pg) and dac-cli (src/cli) include this header and no other from
 *	  src/core.  Models (load, save, and the questions a host asks of one:
 *	  model.h), clustering a set and its options (cluster.h, with the
 *	  stages, the clustering type and the metrics it includes), kept
 *	  clusterings and their calibration (mixture.h, calibrate.h), the
 *	  generators (gen.h), training (train.h), the units frame (frame.h),
 *	  weights files (safetensors.h), JSON text (json.h) and OpenBLAS
 *	  (linalg.h).  The host reaches the core's allocation, interrupts and
 *	  progress through the hooks of core.h.
 */
#ifndef DAC_H
#define DAC_H

#include "core.h"
#include "model.h"
#include "cluster.h"
#include "mixture.h"
#include "calibrate.h"
#include "gen.h"
#include "train.h"
#include "frame.h"
#include "safetensors.h"
#include "json.h"
#include "linalg.h"
#include "options.h"

#endif							/* DAC_H */

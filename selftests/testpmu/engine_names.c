// SPDX-License-Identifier: GPL-2.0
/* The test PMU takes event names of any table; it links its own engine copy. */
#include "../../module/engine.c"
#include "../../module/models.c"

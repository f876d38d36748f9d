// SPDX-License-Identifier: GPL-2.0
/* The test PMU takes event names; it links its own copy of the engine and tables. */
#include "../../module/engine.c"
#include "../../module/models.c"

// SPDX-License-Identifier: GPL-2.0
/* The KUnit module links its own copy of the unchanged engine and tables. */
#include "../engine.c"
#include "../models.c"

// SPDX-License-Identifier: GPL-2.0
/* The KUnit module links its own copy of the unchanged engine source. */
#include "../engine.c"

// Argument layout shared by the Metal kernels and the Python side that
// launches them (complexext/_metal_launch.py reads the MX_ and OLA_ numbers
// below from this file, so the two cannot drift apart).
//
// torch.mps.compile_shader binds a Python list of ints as an array of
// int64 (`constant long*`), a Python int as `constant long&` and a float
// as `constant float&`; every kernel takes its geometry as one such list.
#pragma once

// ---- cx_fft_* (one row per threadgroup slice) and cx_map_* (one element
// per thread): a set of rows, each at offset cx_row_*_offset(rows, r) --------
#define MX_N 0             // transform length n (map: unused)
#define MX_LEN 1           // n, or Bluestein's m: elements a row holds on chip
#define MX_NPASSES 2       // Stockham passes of length MX_LEN
#define MX_BLUESTEIN 3     // 1: chirp on load and store, filter between rounds
#define MX_IN_KIND 4       // MX_COMPLEX, MX_REAL or MX_HERMITIAN
#define MX_OUT_KIND 5      // MX_COMPLEX or MX_REAL (the real part)
#define MX_NIN 6           // elements stored per input row (hermitian: bins)
#define MX_NOUT 7          // elements written per output row
#define MX_IN_STRIDE 8     // along the row, in elements of the input kind
#define MX_OUT_STRIDE 9
#define MX_CONJ_IN 10      // conjugate after the load (inverse transforms)
#define MX_CONJ_OUT 11     // conjugate before the store
#define MX_TPR 12          // threads per row
#define MX_RPG 13          // rows per threadgroup
#define MX_NROWS 14
#define MX_TW 15           // offsets into the table buffer (complex units)
#define MX_ROOTS 16
#define MX_CHIRP 17
#define MX_FILTER 18
#define MX_MUL 19          // map: multiply by table[MX_MUL + k]; -1: no table
#define MX_WIN 20          // MX_WIN_NONE, MX_WIN_LOAD or MX_WIN_STORE
#define MX_TW4_N 21        // four-step twiddle w_N^(j*k) on store; 0: none
#define MX_TW4_DIV 22      // j = (row / MX_TW4_DIV) % MX_TW4_MOD
#define MX_TW4_MOD 23
#define MX_ND 24           // batch dims of the rows (at most CX_BLOCK_MAX_DIMS)
#define MX_SIZES 25        // CX_BLOCK_MAX_DIMS values each, last dim fastest
#define MX_IN_STRIDES 33
#define MX_OUT_STRIDES 41
#define MX_PASSES 49       // 4 values per pass: radix, ns, tw, roots
#define MX_MAX_PASSES 24

#define MX_COMPLEX 0
#define MX_REAL 1
#define MX_HERMITIAN 2     // c2r: element k >= MX_NIN is conj(x[n - k])
#define MX_WIN_NONE 0
#define MX_WIN_LOAD 1
#define MX_WIN_STORE 2

// ---- cx_ola_* (ISTFT overlap-add by gathering, one output value per
// thread) -----------------------------------------------------------------
#define OLA_B 0
#define OLA_T 1            // frames
#define OLA_NFFT 2
#define OLA_HOP 3
#define OLA_START 4
#define OLA_LENGTH 5
#define OLA_C 6            // 1: real frames and output, 2: complex (re, im)
#define OLA_SIZE 7

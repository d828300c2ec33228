// hybrid MSD radix sort, variant q6
#define HB_BITS 9
#define K3_THREADS 1024
#define K3_ITEMS 18
#define K3_MINBLOCKS 1
#define K2_MATCH 0
#define K3_MATCH 0
#define HB_PDL 1
#define K3_PACK 1
#define FULLSKIP 1
#define K2_ITEMS 14
#include "hybrid2.cuh"

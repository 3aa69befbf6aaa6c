/* ProcessPrng for wine 8 (Debian 12's), which lacks bcryptprimitives.dll.
 * Rust's standard library on Windows (since 1.78) imports ProcessPrng from
 * it to seed hash maps, so without this a Rust test binary does not even
 * start under that wine. `cargo xtask test` builds this with mingw-w64 into
 * the throwaway wine prefix of the Windows golden check; it only hands out
 * random bytes (RtlGenRandom, which wine has), and nothing the simulation
 * computes reads them. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}

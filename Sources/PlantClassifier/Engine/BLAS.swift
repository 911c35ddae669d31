// The only file that talks to BLAS: OpenBLAS on Linux, Accelerate on Apple platforms.
#if canImport(Accelerate)
import Accelerate
#else
import COpenBLAS
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

enum BLAS {
    /// C[m×n] = A[m×k] · B[k×n] + beta · C, all row-major and densely packed, on the calling thread.
    static func gemm(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>,
        beta: Float
    ) {
        gemm(m: m, n: n, k: k, a: a, lda: k, b: b, ldb: n, c: c, ldc: n, beta: beta)
    }

    /// The same product split into more pieces than `threads` and spread over them dynamically. BLAS's
    /// own threading splits a product into exactly one piece per thread, so one core taken by another
    /// process stalls the whole product; small pieces let the free core take over. Each piece packs its
    /// own copy of the operand it shares, so the split runs along rows of C when A is the bigger
    /// matrix (early layers: many pixels, few channels) and along columns when B is (late layers).
    static func parallelGemm(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>,
        beta: Float, threads: Int
    ) {
        let pieces: Int
        let alongRows = m >= n
        if threads <= 1 || m * n * k < 1 << 20 {
            pieces = 1
        } else if alongRows {
            pieces = min(4 * threads, m / 16)
        } else {
            pieces = min(4 * threads, n / 16)
        }
        guard pieces > 1 else {
            gemm(m: m, n: n, k: k, a: a, b: b, c: c, beta: beta)
            return
        }
        let work = Operands(a: a, b: b, c: c)
        DispatchQueue.concurrentPerform(iterations: pieces) { piece in
            if alongRows {
                // Whole rows of A and C; keep piece boundaries on multiples of 8 rows for the kernels.
                let start = (m * piece / pieces) & ~7, end = piece == pieces - 1 ? m : (m * (piece + 1) / pieces) & ~7
                guard end > start else { return }
                gemm(m: end - start, n: n, k: k, a: work.a + start * k, lda: k, b: work.b, ldb: n, c: work.c + start * n, ldc: n, beta: beta)
            } else {
                let start = (n * piece / pieces) & ~7, end = piece == pieces - 1 ? n : (n * (piece + 1) / pieces) & ~7
                guard end > start else { return }
                gemm(m: m, n: end - start, k: k, a: work.a, lda: k, b: work.b + start, ldb: n, c: work.c + start, ldc: n, beta: beta)
            }
        }
    }

    private static func gemm(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, beta: Float
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k), 1, a, Int32(lda), b, Int32(ldb),
            beta, c, Int32(ldc)
        )
    }

    /// y[m] = A[m×n] · x[n], A row-major and densely packed, on the calling thread.
    static func matrixVector(m: Int, n: Int, a: UnsafePointer<Float>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(m), Int32(n), 1, a, Int32(n), x, 1, 0, y, 1)
    }

    /// Keeps BLAS on the calling thread, process-wide (the engine spreads each product over threads itself), and ends
    /// the worker threads OpenBLAS started when it was loaded: an idle one spins on `sched_yield` for about 0.1 s after
    /// it starts, which was a fifth of the CPU of a whole `plantguide identify`. Accelerate picks its own threads.
    static func keepOnCallingThread() {
        #if !canImport(Accelerate)
        openblas_set_num_threads(1)
        // Threaded builds of OpenBLAS export it (and it does nothing once the threads are gone); a serial build has none.
        if let program = dlopen(nil, RTLD_NOW), let symbol = dlsym(program, "blas_thread_shutdown_") {
            typealias Shutdown = @convention(c) () -> Int32
            _ = unsafeBitCast(symbol, to: Shutdown.self)()
        }
        #endif
    }
}

/// The matrices of one product, carried into the pieces; each piece writes its own part of `c`.
private struct Operands: @unchecked Sendable {
    let a: UnsafePointer<Float>
    let b: UnsafePointer<Float>
    let c: UnsafeMutablePointer<Float>
}

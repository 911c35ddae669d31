// The only file that talks to BLAS: OpenBLAS on Linux, Accelerate on Apple platforms.
#if canImport(Accelerate)
import Accelerate
#else
import COpenBLAS
#endif

enum BLAS {
    /// C[m×n] = A[m×k] · B[k×n] + beta · C, all row-major and densely packed.
    static func gemm(
        m: Int, n: Int, k: Int, a: UnsafePointer<Float>, b: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>,
        beta: Float
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k), 1, a, Int32(k), b, Int32(n),
            beta, c, Int32(n)
        )
    }

    /// Sets how many threads BLAS may use. Process-wide in OpenBLAS; Accelerate picks its own.
    static func setThreads(_ count: Int) {
        #if !canImport(Accelerate)
        openblas_set_num_threads(Int32(max(1, count)))
        #endif
    }
}

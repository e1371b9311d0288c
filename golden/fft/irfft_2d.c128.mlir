module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xcomplex<f64>>) -> (tensor<4x6xf64> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = call @_pad(%arg0, %c) : (tensor<4x4xcomplex<f64>>, tensor<i64>) -> tensor<4x4xcomplex<f64>>
    %1 = call @fft(%0) : (tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64>
    return %1 : tensor<4x6xf64>
  }
  func.func private @_pad(%arg0: tensor<4x4xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<4x4xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x4xcomplex<f64>>, tensor<complex<f64>>) -> tensor<4x4xcomplex<f64>>
    return %1 : tensor<4x4xcomplex<f64>>
  }
  func.func private @fft(%arg0: tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [4, 6] : (tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64>
    return %0 : tensor<4x6xf64>
  }
}

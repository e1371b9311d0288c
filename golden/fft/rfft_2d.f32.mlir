module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<4x4xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = call @fft(%arg0) : (tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>>
    return %0 : tensor<4x4xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4, 6] : (tensor<4x6xf32>) -> tensor<4x4xcomplex<f32>>
    return %0 : tensor<4x4xcomplex<f32>>
  }
}

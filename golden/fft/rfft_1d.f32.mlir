module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>) -> (tensor<6xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = call @fft(%arg0) : (tensor<10xf32>) -> tensor<6xcomplex<f32>>
    return %0 : tensor<6xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<10xf32>) -> tensor<6xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [10] : (tensor<10xf32>) -> tensor<6xcomplex<f32>>
    return %0 : tensor<6xcomplex<f32>>
  }
}

module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xcomplex<f32>>) -> (tensor<complex<f32>> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<3x4xcomplex<f32>>) -> tensor<1x1xcomplex<f32>>
    %1 = stablehlo.reshape %0 : (tensor<1x1xcomplex<f32>>) -> tensor<complex<f32>>
    return %1 : tensor<complex<f32>>
  }
}

module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xcomplex<f64>>, %arg1: tensor<2x4xcomplex<f64>>) -> (tensor<8x4xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 0 : (tensor<3x4xcomplex<f64>>, tensor<2x4xcomplex<f64>>, tensor<3x4xcomplex<f64>>) -> tensor<8x4xcomplex<f64>>
    return %0 : tensor<8x4xcomplex<f64>>
  }
}

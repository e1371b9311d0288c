module @jit_tan attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.tan %arg0 : tensor<3x5xcomplex<f64>>
    return %0 : tensor<3x5xcomplex<f64>>
  }
}

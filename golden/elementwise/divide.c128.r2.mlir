module @jit_div attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xcomplex<f64>>, %arg1: tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<3x5xcomplex<f64>>
    return %0 : tensor<3x5xcomplex<f64>>
  }
}

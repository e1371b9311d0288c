module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x3xcomplex<f64>>) -> (tensor<2x3x3xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.cholesky %arg0, lower = true : tensor<2x3x3xcomplex<f64>>
    return %0 : tensor<2x3x3xcomplex<f64>>
  }
}

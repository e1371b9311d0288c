module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xcomplex<f64>>) -> (tensor<12xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.real %arg0 : (tensor<12xcomplex<f64>>) -> tensor<12xf64>
    %1 = stablehlo.convert %0 : (tensor<12xf64>) -> tensor<12xui64>
    return %1 : tensor<12xui64>
  }
}

module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xbf16>) -> (tensor<12xui16> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<12xbf16>) -> tensor<12xui16>
    return %0 : tensor<12xui16>
  }
}

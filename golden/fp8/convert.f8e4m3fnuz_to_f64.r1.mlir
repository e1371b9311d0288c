module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E4M3FNUZ>) -> (tensor<12xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<12xf8E4M3FNUZ>) -> tensor<12xf64>
    return %0 : tensor<12xf64>
  }
}

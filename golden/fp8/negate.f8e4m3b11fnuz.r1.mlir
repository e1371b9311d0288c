module @jit_neg attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E4M3B11FNUZ>) -> (tensor<12xf8E4M3B11FNUZ> {jax.result_info = "result"}) {
    %0 = stablehlo.negate %arg0 : tensor<12xf8E4M3B11FNUZ>
    return %0 : tensor<12xf8E4M3B11FNUZ>
  }
}

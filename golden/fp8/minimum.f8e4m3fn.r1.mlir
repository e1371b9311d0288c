module @jit_min attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E4M3FN>, %arg1: tensor<12xf8E4M3FN>) -> (tensor<12xf8E4M3FN> {jax.result_info = "result"}) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<12xf8E4M3FN>
    return %0 : tensor<12xf8E4M3FN>
  }
}

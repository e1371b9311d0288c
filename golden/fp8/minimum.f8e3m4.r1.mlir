module @jit_min attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E3M4>, %arg1: tensor<12xf8E3M4>) -> (tensor<12xf8E3M4> {jax.result_info = "result"}) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<12xf8E3M4>
    return %0 : tensor<12xf8E3M4>
  }
}

module @jit_lt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E3M4>, %arg1: tensor<12xf8E3M4>) -> (tensor<12xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<12xf8E3M4>, tensor<12xf8E3M4>) -> tensor<12xi1>
    return %0 : tensor<12xi1>
  }
}

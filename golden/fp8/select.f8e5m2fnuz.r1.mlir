module @jit_select attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi1>, %arg1: tensor<12xf8E5M2FNUZ>, %arg2: tensor<12xf8E5M2FNUZ>) -> (tensor<12xf8E5M2FNUZ> {jax.result_info = "result"}) {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<12xi1>, tensor<12xf8E5M2FNUZ>
    return %0 : tensor<12xf8E5M2FNUZ>
  }
}

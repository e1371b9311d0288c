module @jit_abs attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf8E8M0FNU>) -> (tensor<12xf8E8M0FNU> {jax.result_info = "result"}) {
    %0 = stablehlo.abs %arg0 : tensor<12xf8E8M0FNU>
    return %0 : tensor<12xf8E8M0FNU>
  }
}

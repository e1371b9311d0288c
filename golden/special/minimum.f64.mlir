module @jit_min attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<165xf64>, %arg1: tensor<165xf64>) -> (tensor<165xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.minimum %arg0, %arg1 : tensor<165xf64>
    return %0 : tensor<165xf64>
  }
}

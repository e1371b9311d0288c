module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = stablehlo.create_token : !stablehlo.token
    %2 = stablehlo.after_all %0, %1 : !stablehlo.token
    %3 = stablehlo.negate %arg0 : tensor<2x3xf32>
    return %3 : tensor<2x3xf32>
  }
}

module @jit_ge attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf64>, %arg1: tensor<32xf64>) -> (tensor<32xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<32xf64>, tensor<32xf64>) -> tensor<32xi1>
    return %0 : tensor<32xi1>
  }
}

module @jit_le attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xi16>, %arg1: tensor<16xi16>) -> (tensor<16xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.compare LE, %arg0, %arg1, SIGNED : (tensor<16xi16>, tensor<16xi16>) -> tensor<16xi1>
    return %0 : tensor<16xi1>
  }
}

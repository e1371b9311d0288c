module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<2x3xi32>) -> (tensor<2x3xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.replica_id : tensor<ui32>
    %1 = stablehlo.convert %0 : (tensor<ui32>) -> tensor<i32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %3 = stablehlo.add %arg0, %2 : tensor<2x3xi32>
    return %3 : tensor<2x3xi32>
  }
}

module @jit_swap attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xi32>, %arg1: tensor<4xi32>) -> (tensor<4xi32> {jax.result_info = "result[0]"}, tensor<2x3xi32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<2x3xi32>, tensor<4xi32>>
    %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<2x3xi32>, tensor<4xi32>>) -> tensor<4xi32>
    %2 = stablehlo.get_tuple_element %0[0] : (tuple<tensor<2x3xi32>, tensor<4xi32>>) -> tensor<2x3xi32>
    return %1, %2 : tensor<4xi32>, tensor<2x3xi32>
  }
}

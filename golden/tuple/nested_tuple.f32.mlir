module @jit_nested attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.tuple %arg1, %arg2 : tuple<tensor<2xf32>, tensor<2xf32>>
    %1 = stablehlo.tuple %arg0, %0 : tuple<tensor<2xf32>, tuple<tensor<2xf32>, tensor<2xf32>>>
    %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf32>, tuple<tensor<2xf32>, tensor<2xf32>>>) -> tuple<tensor<2xf32>, tensor<2xf32>>
    %3 = stablehlo.get_tuple_element %2[1] : (tuple<tensor<2xf32>, tensor<2xf32>>) -> tensor<2xf32>
    %4 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2xf32>, tuple<tensor<2xf32>, tensor<2xf32>>>) -> tensor<2xf32>
    return %3, %4 : tensor<2xf32>, tensor<2xf32>
  }
}

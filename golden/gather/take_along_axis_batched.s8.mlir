module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xi8>, %arg1: tensor<3x2xi32>) -> (tensor<3x2xi8> {jax.result_info = "result"}) {
    %0 = call @take_along_axis(%arg0, %arg1) : (tensor<3x5xi8>, tensor<3x2xi32>) -> tensor<3x2xi8>
    return %0 : tensor<3x2xi8>
  }
  func.func private @take_along_axis(%arg0: tensor<3x5xi8>, %arg1: tensor<3x2xi32>) -> tensor<3x2xi8> {
    %0 = stablehlo.reshape %arg1 : (tensor<3x2xi32>) -> tensor<3x2x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<3x5xi8>, tensor<3x2x1xi32>) -> tensor<3x2xi8>
    return %1 : tensor<3x2xi8>
  }
}

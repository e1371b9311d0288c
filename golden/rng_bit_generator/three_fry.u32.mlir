module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui64>) -> (tensor<2xui64> {jax.result_info = "result[0]"}, tensor<4x5xui32> {jax.result_info = "result[1]"}) {
    %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x5xui32>)
    return %output_state, %output : tensor<2xui64>, tensor<4x5xui32>
  }
}

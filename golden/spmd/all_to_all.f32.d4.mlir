module @jit_fn attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x3xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<16x3xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<16x3xf32>) -> tensor<16x3xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x3xf32>) -> tensor<4x3xf32>
    %2 = call @shmap_body(%1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<4x3xf32>) -> tensor<16x3xf32>
    return %4 : tensor<16x3xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x3xf32>) -> (tensor<4x3xf32> {jax.result_info = "[('x',), None]"}) {
    %0 = "stablehlo.all_to_all"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 0 : i64}> : (tensor<4x3xf32>) -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}

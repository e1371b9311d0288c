module @jit_fn attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xbf16> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<4x3xbf16> {jax.result_info = "result", mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<4x3xbf16>) -> tensor<4x3xbf16>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x3xbf16>) -> tensor<2x3xbf16>
    %2 = call @shmap_body(%1) : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[2,1]<=[2]}"} : (tensor<2x3xbf16>) -> tensor<4x3xbf16>
    return %4 : tensor<4x3xbf16>
  }
  func.func private @shmap_body(%arg0: tensor<2x3xbf16>) -> (tensor<2x3xbf16> {jax.result_info = "[('x',), None]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<bf16>, %arg2: tensor<bf16>):
      %1 = stablehlo.add %arg1, %arg2 : tensor<bf16>
      stablehlo.return %1 : tensor<bf16>
    }) : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
    return %0 : tensor<2x3xbf16>
  }
}

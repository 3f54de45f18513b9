// The mma.sync catalog's host side: every row's fragment layout places each element of A, B
// and C/D in exactly one register slot of one lane, packing round-trips, and the sparse and
// sign helpers say what the kernels rely on.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tensor/mma_catalog.cuh"

namespace gd::mma_catalog {
namespace {

std::vector<RowInfo> all_rows() {
  std::vector<RowInfo> rows;
  for_each_row([&](auto* row) { rows.push_back(std::remove_pointer_t<decltype(row)>::info); });
  return rows;
}

TEST(MmaCatalog, FragmentsCoverEveryElementOnce) {
  for (const RowInfo& r : all_rows()) {
    for (Operand op : {Operand::A, Operand::B, Operand::C}) {
      const MatrixDesc d = operand_desc(r, op);
      std::set<std::pair<int, int>> seen;
      const int per = elements_per_word(r, op);
      ASSERT_GT(per, 0) << r.name;
      for (int lane = 0; lane < 32; ++lane)
        for (int w = 0; w < words(r, op); ++w)
          for (int i = 0; i < per; ++i) {
            const Coord c = fragment_coord(r, op, lane, w, i);
            ASSERT_TRUE(c.row >= 0 && c.row < d.rows && c.col >= 0 && c.col < d.cols)
                << r.name << " operand " << int(op) << " lane " << lane << " reg " << w << " elem " << i << " -> ("
                << c.row << ", " << c.col << ") outside " << d.rows << "x" << d.cols;
            EXPECT_TRUE(seen.insert({c.row, c.col}).second) << r.name << " operand " << int(op) << " element twice";
          }
      EXPECT_EQ(seen.size(), std::size_t(d.rows) * d.cols) << r.name << " operand " << int(op) << " not covered";
    }
  }
}

TEST(MmaCatalog, RowsAreConsistent) {
  std::set<std::string> names;
  for (const RowInfo& r : all_rows()) {
    EXPECT_TRUE(names.insert(r.name).second) << "duplicate row " << r.name;
    EXPECT_TRUE(r.word_bits == 32 || r.word_bits == 64) << r.name;
    EXPECT_EQ(r.sparse, std::string(r.ptx).rfind("mma.sp", 0) == 0) << r.name;
    EXPECT_EQ(r.ordered_metadata, std::string(r.ptx).find("ordered_metadata") != std::string::npos) << r.name;
    EXPECT_EQ(r.scale_block > 0, std::string(r.ptx).find("block_scale") != std::string::npos) << r.name;
    EXPECT_EQ(r.op != BinaryOp::none, r.a == MmaType::b1) << r.name;
    std::string shape = "m";
    shape += std::to_string(r.m);
    shape += "n";
    shape += std::to_string(r.n);
    shape += "k";
    shape += std::to_string(r.k);
    EXPECT_NE(std::string(r.ptx).find(shape), std::string::npos) << r.name << ": shape fields disagree with the instruction";
    std::string type = ".";
    type += mma_type_name(r.a);
    EXPECT_NE(std::string(r.ptx).find(type), std::string::npos) << r.name;
  }
  EXPECT_GE(names.size(), 38u);
}

TEST(MmaCatalog, AccumulatorPackingRoundTrips) {
  for (const RowInfo& r : all_rows()) {
    const HostMatrix c = random_matrix(operand_desc(r, Operand::C), 3);
    const HostMatrix back = unpack_fragments(r, pack_fragments(r, Operand::C, c));
    EXPECT_EQ(back.bytes, c.bytes) << r.name;
  }
}

TEST(MmaCatalog, PackingPutsElementsWhereTheLayoutSays) {
  // f16 m16n8k16 A: lane 5 (g 1, t 1), register 2 holds A[1][10] (low half) and A[1][11].
  const RowInfo r = F16F32K16::info;
  HostMatrix a = make_matrix(operand_desc(r, Operand::A));
  a.set(1, 10, 0x1234);
  a.set(1, 11, 0xabcd);
  const auto regs = pack_fragments(r, Operand::A, a);
  EXPECT_EQ(regs[5 * r.na + 2], 0xabcd1234u);
  // FP4 in 8-bit containers sits at bit 2 of each byte.
  const RowInfo f4 = KindE2m1::info;
  HostMatrix b = make_matrix(operand_desc(f4, Operand::B));
  b.set(1, 0, 0x7);
  EXPECT_EQ(pack_fragments(f4, Operand::B, b)[0], 0x1c00u);
}

TEST(MmaCatalog, SparseMetadataAndExpansion) {
  EXPECT_EQ(sparse_metadata(0, 1), 0x44444444u);
  EXPECT_EQ(sparse_metadata(1, 3), 0xDDDDDDDDu);
  const RowInfo r = SpoF16K32::info;
  HostMatrix comp = make_matrix(row_major(r.a, r.m, r.k / 2));
  comp.set(2, 0, 0x3c00);  // 1.0
  comp.set(2, 1, 0x4000);  // 2.0
  comp.set(2, 3, 0x4200);  // 3.0, group 1's second value
  const HostMatrix dense = expand_sparse(r, comp, 1, 3);
  EXPECT_EQ(dense.value(2, 1), 1.0);
  EXPECT_EQ(dense.value(2, 3), 2.0);
  EXPECT_EQ(dense.value(2, 7), 3.0);
  EXPECT_EQ(dense.value(2, 0), 0.0);
}

TEST(MmaCatalog, SignMasksNegateBAndLeaveIntegersAlone) {
  EXPECT_EQ(sign_mask(F16F32K16::info), 0x80008000u);
  EXPECT_EQ(sign_mask(Tf32K8::info), 0x80000000u);
  EXPECT_EQ(sign_mask(E4m3K32::info), 0x80808080u);
  EXPECT_EQ(sign_mask(F64K16::info), 0x8000000000000000ull);
  EXPECT_EQ(sign_mask(KindE2m1::info), 0x20202020u);
  EXPECT_EQ(sign_mask(S8K32::info), 0u);
  // Negating B through the mask negates the product.
  const RowInfo r = Bf16K16::info;
  HostMatrix b = random_matrix(operand_desc(r, Operand::B), 9);
  const auto regs = pack_fragments(r, Operand::B, b);
  const uint64_t flipped = regs[0] ^ sign_mask(r);
  EXPECT_EQ(decode_element(r.b, flipped & 0xffff), -decode_element(r.b, regs[0] & 0xffff));
}

}  // namespace
}  // namespace gd::mma_catalog

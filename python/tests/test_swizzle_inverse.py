"""right_inverse / left_inverse of swizzled layouts in Python: CuTe C++'s `Sw' o inverse(L)`,
checked here at every point; where CuTe's answer breaks the definition, a LayoutError."""
import pytest
import tessera
from tessera import ComposedLayout


@pytest.mark.parametrize("text", [
    "Sw<3,3,3> o (8,64):(64,1)",
    "Sw<3,0,3> o (8,8):(8,1)",
    "Sw<2,0,2> o (4,4):(1,4)",
    "Sw<2,1,3> o ((4,2),8):((16,64),1)",
])
def test_inverses_meet_the_definition(text):
    F = ComposedLayout.parse(text)
    R = tessera.right_inverse(F)
    assert all(F(R(k)) == k for k in range(tessera.size(R)))
    L = tessera.left_inverse(F)
    assert all(L(F(i)) == i for i in range(F.size()))


def test_cutes_wrong_answer_is_refused():
    with pytest.raises(tessera.LayoutError, match="breaks the definition"):
        tessera.right_inverse(ComposedLayout.parse("Sw<3,4,3> o (64,8):(8,1)"))
    with pytest.raises(tessera.LayoutError, match="cannot hold"):
        tessera.right_inverse(ComposedLayout.parse("Sw<3,0,3> o 8 o (8,8):(8,1)"))

"""How the Datasets hand out a stored sample (see decode_sample)."""
import io

import torch

DECODERS = ("pil", "tensor", "raw")


def decode_sample(data, decode="pil"):
    """Stored bytes (or a --pixels array) as the Datasets hand them out.

    "pil":    a PIL image in RGB, as torchvision's ImageFolder loads files
    "tensor": a C x H x W uint8 tensor (torchvision.io.decode_image, RGB)
    "raw":    the bytes as stored
    A --pixels array is never decoded: "pil" and "raw" give the H x W x 3
    numpy array (writable, ready for ToTensor), "tensor" a C x H x W
    tensor.
    """
    if decode not in DECODERS:
        raise ValueError(f"decode must be one of {DECODERS}")
    if not isinstance(data, (bytes, bytearray)):     # a --pixels array
        array = data.copy()
        if decode == "tensor":
            return torch.from_numpy(array).permute(2, 0, 1)
        return array
    if decode == "pil":
        from PIL import Image
        with Image.open(io.BytesIO(data)) as img:
            return img.convert("RGB")
    if decode == "tensor":
        from torchvision.io import ImageReadMode, decode_image
        raw = torch.frombuffer(bytearray(data), dtype=torch.uint8)
        return decode_image(raw, mode=ImageReadMode.RGB)
    return data
